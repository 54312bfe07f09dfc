package historyview

import (
	"context"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Search finds q (plain text, or a regular expression after "re:") from
// the view's position towards older rows (up) or newer ones, wrapping
// around once, and shows the row it is on. Nothing found: the status line
// says "no match". An invalid expression says why. Errors: the Source's.
func (v *View) Search(ctx context.Context, q string, up bool) error {
	var re *regexp.Regexp
	if expr, ok := strings.CutPrefix(q, "re:"); ok {
		var err error
		if re, err = regexp.Compile(expr); err != nil {
			v.msg = "bad regular expression: " + err.Error()
			return nil
		}
	} else {
		re = regexp.MustCompile(regexp.QuoteMeta(q))
	}
	v.query, v.re, v.up = q, re, up
	v.match = -1
	return v.next(ctx, up)
}

// next finds the last search's next match towards older rows (up) or
// newer ones.
func (v *View) next(ctx context.Context, up bool) error {
	if v.re == nil {
		v.msg = "no search yet: / or ? starts one"
		return nil
	}
	from := v.match
	if from < 0 { // first search: from the rows shown
		if up {
			from = min(v.top+int64(v.body()), v.bottom)
		} else {
			from = v.top - 1
		}
	}
	step := int64(1)
	if up {
		step = -1
	}
	total := v.bottom - v.oldest
	wrapped := false
	n := from
	for i := int64(0); i < min(total, maxScan); i++ {
		n += step
		if n >= v.bottom {
			n, wrapped = v.oldest, true
		} else if n < v.oldest {
			n, wrapped = v.bottom-1, true
		}
		line, ok, err := v.row(ctx, n)
		if err != nil {
			return err
		}
		text := strings.TrimRight(Plain(line), " ")
		if loc := v.re.FindStringIndex(text); ok && loc != nil {
			v.match, v.cur = n, n
			v.col = min(utf8.RuneCountInString(text[:loc[0]]), v.width-1)
			if n < v.top || n >= v.top+int64(v.body()) {
				v.top = v.clampTop(n - int64(v.body())/2)
			}
			v.keepCursor()
			v.msg = ""
			if wrapped {
				v.msg = "search wrapped"
			}
			return nil
		}
	}
	v.msg = "no match: " + v.query
	return nil
}

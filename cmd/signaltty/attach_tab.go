package main

import "context"

// attachTab draws all panes of a tab in their split layout.
func (a *app) attachTab(ctx context.Context, ref string, o attachOptions) error {
	return &callError{Code: "unsupported.tab_view", Message: "attach --tab is not available yet", Data: map[string]any{}}
}

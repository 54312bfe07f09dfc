package tests

import (
	"testing"

	"github.com/signaltty/signaltty/tests/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

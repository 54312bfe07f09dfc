package persist

import "time"

// SaveDebounce is the least time between two debounced saves.
const SaveDebounce = 2 * time.Second

// DefaultSaveOutputInterval is the daemon's output save interval unless
// configured otherwise (docs/persistence.md, "When").
const DefaultSaveOutputInterval = 30 * time.Second

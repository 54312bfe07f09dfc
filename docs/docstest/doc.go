// Package docstest reads the contracts under docs/ for the tests that hold
// them to the code: their prose with wrapping undone, and the numbers a
// sentence of it states.
package docstest

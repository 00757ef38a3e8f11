//go:build !race

package watch

// raceEnabled: the race detector slows the fake GitHub down about tenfold.
const raceEnabled = false

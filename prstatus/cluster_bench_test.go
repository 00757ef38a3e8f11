package prstatus

import (
	"fmt"
	"testing"
)

// fifteenRounds is a PR answered over 15 rounds of 10 threads each, with 5 new threads.
func fifteenRounds() (Facts, []string) {
	b, ids := roundsPR(15, 10)
	for i := range 4 {
		id := fmt.Sprintf("PRRT_new_%02d", i+1)
		b.fresh(id, fmt.Sprintf("api/h%02d.go", i), 50+i, "carol", "+15d 10:00", "This error is swallowed; validate the input too.")
		ids = append(ids, id)
	}
	return b.derive(), ids
}

// BenchmarkCluster: the cost of the analysis alone, on facts already derived.
func BenchmarkCluster(b *testing.B) {
	f, ids := fifteenRounds()
	b.ReportAllocs()
	for b.Loop() {
		if Cluster(&f, ids, DefaultLookback).Brief == nil {
			b.Fatal("no brief")
		}
	}
}

// BenchmarkClusterThreeRounds is the same PR with 3 rounds: the lookback makes both cost alike.
func BenchmarkClusterThreeRounds(b *testing.B) {
	bl, ids := roundsPR(3, 10)
	f := bl.derive()
	b.ReportAllocs()
	for b.Loop() {
		_ = Cluster(&f, ids, DefaultLookback)
	}
}

// BenchmarkClusterGateClosed: one new thread and no feedback since the newest prior reply.
func BenchmarkClusterGateClosed(b *testing.B) {
	bl, _ := roundsPR(15, 10)
	bl.fresh("old", "x/y.go", 1, "bob", "+0d 08:00", "Validate it.")
	f := bl.derive()
	b.ReportAllocs()
	for b.Loop() {
		_ = Cluster(&f, []string{"old"}, DefaultLookback)
	}
}

func BenchmarkPriorResolutions(b *testing.B) {
	f, _ := fifteenRounds()
	b.ReportAllocs()
	for b.Loop() {
		_ = PriorResolutions(&f)
	}
}

func BenchmarkCategorize(b *testing.B) {
	body := "This swallows the error from Close; please wrap it with %w and add a unit test for the failure path. " +
		"Also the loop allocates on every iteration."
	b.ReportAllocs()
	for b.Loop() {
		_ = Categorize(body, "store/file.go")
	}
}

func BenchmarkVerdictsSince(b *testing.B) {
	f := Derive(bigPR(), day0)
	b.ReportAllocs()
	for b.Loop() {
		_ = VerdictsSince(&f, day0, "r1")
	}
}

// Package floodtest measures the heap of a process while it is flooded with large request bodies:
// the tests of the team deployment's HTTP handlers that read bodies before authenticating use it.
package floodtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// Flood is a measurement: concurrent posts of large bodies at a URL, and the heap of this process
// while they are served. Tests of the handlers that read bodies before authenticating use it.
type Flood struct {
	URL      string
	Posts    int
	BodySize int64
	// Header is set on every post (a forged signature, a token nobody knows).
	Header http.Header
}

// FloodResult is what a Flood saw.
type FloodResult struct {
	// Statuses counts the answers by status; Errors counts posts that got none (the server closed
	// the connection while the body was still being sent).
	Statuses map[int]int
	Errors   int
	// HeapBefore and HeapPeak are the heap's live bytes before the flood and at its highest
	// sample (every few milliseconds) during it.
	HeapBefore, HeapPeak uint64
}

// Growth is how far the heap rose over its level before the flood.
func (r FloodResult) Growth() uint64 {
	if r.HeapPeak < r.HeapBefore {
		return 0
	}
	return r.HeapPeak - r.HeapBefore
}

func (r FloodResult) String() string {
	return fmt.Sprintf("heap %.1f MiB before, %.1f MiB at its peak (+%.1f MiB); answers %v, %d without an answer",
		mib(r.HeapBefore), mib(r.HeapPeak), mib(r.Growth()), r.Statuses, r.Errors)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// Run posts the bodies (generated as they are sent: the client holds none of them) all at once.
func (f Flood) Run(ctx context.Context) FloodResult {
	runtime.GC()
	res := FloodResult{Statuses: map[int]int{}, HeapBefore: heapAlloc()}
	res.HeapPeak = res.HeapBefore
	stop := make(chan struct{})
	sampled := make(chan uint64)
	go func() {
		peak := uint64(0)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, heapAlloc())
			select {
			case <-stop:
				sampled <- peak
				return
			case <-tick.C:
			}
		}
	}()
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, DisableKeepAlives: true}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range f.Posts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.URL, &filler{left: f.BodySize})
			if err != nil {
				mu.Lock()
				res.Errors++
				mu.Unlock()
				return
			}
			req.ContentLength = f.BodySize
			for k, v := range f.Header {
				req.Header[k] = v
			}
			resp, err := client.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.Errors++
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			res.Statuses[resp.StatusCode]++
		}()
	}
	wg.Wait()
	close(stop)
	res.HeapPeak = max(res.HeapPeak, <-sampled)
	return res
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// filler is a body of n bytes made as it is read.
type filler struct{ left int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), f.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	f.left -= n
	return int(n), nil
}

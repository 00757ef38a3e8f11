package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	prwatch "github.com/prmonitor/prmonitor/prstatus/watch"
)

// budgetFlag is --budget: the share of the token's hourly GraphQL points the watcher may spend,
// written as a percentage (25%) or a fraction (0.25).
type budgetFlag float64

func (b *budgetFlag) String() string {
	if b == nil || *b == 0 {
		return fmt.Sprintf("%g%%", prwatch.DefaultBudget*100)
	}
	return fmt.Sprintf("%g%%", float64(*b)*100)
}

// share is the flag's value, the default when it was not given.
func (b budgetFlag) share() float64 {
	if b == 0 {
		return prwatch.DefaultBudget
	}
	return float64(b)
}

// Set parses 25%, 25 %, 0.25 or 1; anything else, or a share outside (0, 100 %], is refused.
func (b *budgetFlag) Set(s string) error {
	v, err := parseBudget(s)
	if err != nil {
		return err
	}
	*b = budgetFlag(v)
	return nil
}

func parseBudget(s string) (float64, error) {
	t := strings.TrimSpace(s)
	percent := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v != v { // NaN
		return 0, errors.New("not a share: write 25% or 0.25")
	}
	if percent {
		v /= 100
	} else if v > 1 {
		return 0, fmt.Errorf("a fraction is at most 1 (for a percentage write %s%%)", t)
	}
	if v <= 0 || v > 1 {
		return 0, errors.New("the share must be more than 0 and at most 100%")
	}
	return v, nil
}

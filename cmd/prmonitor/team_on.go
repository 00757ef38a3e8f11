//go:build team

package main

// teamBuild tells whether this binary carries the team deployment (built with -tags team).
const teamBuild = true

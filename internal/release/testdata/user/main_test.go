package main

import "testing"

func TestReport(t *testing.T) {
	got, err := report()
	if err != nil {
		t.Fatal(err)
	}
	const want = `sum 500500
blitz_sub_tasks_abandoned_total 0
blitz_sub_tasks_completed_total 3
blitz_sub_tasks_queued 0
blitz_sub_tasks_rejected_total 0
blitz_sub_tasks_running 0
blitz_sub_tasks_submitted_total 3
`
	if got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

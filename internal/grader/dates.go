package grader

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// isoLayouts are the unambiguous layouts tried first; a timestamp's date is the calendar date
// as written (its own offset), so 2025-01-15T23:30:00-05:00 is the 15th.
var isoLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02",
	"2006/01/02", "Jan 2, 2006", "January 2, 2006", "Jan 2 2006", "January 2 2006", "2 Jan 2006",
	"2 January 2006", "Mon, 02 Jan 2006 15:04:05 MST", "Mon, 02 Jan 2006 15:04:05 -0700",
}

var (
	namedMonth = regexp.MustCompile(`^(\d{1,2})[-/ ]([A-Za-z]{3,9})[-/ ](\d{4})$`)
	numericDMY = regexp.MustCompile(`^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$`)
)

var months = map[string]time.Month{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// parseDate reads a date as YYYY-MM-DD. Besides ISO forms it reads DD-MMM-YYYY and the numeric
// NN/NN/YYYY (or with dashes or dots), whose day/month order follows formats: only US formats
// (MM/DD…) mean month first, only EU formats (DD/MM…) day first; otherwise (both, or none given,
// AgentV's default list) a number above 12 shows which is the day, and ambiguity reads as US.
func parseDate(s string, formats []string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, l := range isoLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Format("2006-01-02"), true
		}
	}
	if m := namedMonth.FindStringSubmatch(s); m != nil {
		mon, ok := months[strings.ToLower(m[2])]
		if !ok {
			return "", false
		}
		return ymd(atoi(m[3]), int(mon), atoi(m[1]))
	}
	m := numericDMY.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	a, b, y := atoi(m[1]), atoi(m[2]), atoi(m[3])
	us, eu := false, false
	for _, f := range formats {
		us = us || strings.Contains(f, "MM/DD") || strings.Contains(f, "MM-DD")
		eu = eu || strings.Contains(f, "DD/MM") || strings.Contains(f, "DD-MM")
	}
	switch {
	case us && !eu:
		return ymd(y, a, b)
	case eu && !us:
		return ymd(y, b, a)
	case a > 12 && b <= 12:
		return ymd(y, b, a)
	default:
		return ymd(y, a, b)
	}
}

// ymd formats a calendar date, rejecting days the month does not have (31 Feb).
func ymd(y, m, d int) (string, bool) {
	if m < 1 || m > 12 || d < 1 {
		return "", false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d || int(t.Month()) != m {
		return "", false
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d), true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

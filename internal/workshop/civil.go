package workshop

import "time"

// Day numbers of the proleptic Gregorian calendar (0 is 1970-01-01), after
// H. Hinnant's days_from_civil and civil_from_days: the calendar's memo of
// dates (schedule.go) and the audit format (timestamp.go) count days
// without going through time.Date.

// dayNumber is the day number of y-m-d; d past either end of month m counts
// on into the neighbouring months, as time.Date normalises it.
func dayNumber(y int, m time.Month, d int) int {
	if m <= time.February {
		y--
	}
	era, yoe := divFloor(int64(y), 400)
	doy := int64((153*((int(m)+9)%12)+2)/5 + d - 1)
	return int(era*146097 + yoe*365 + yoe/4 - yoe/100 + doy - 719468)
}

// civilDate is the date of a day number.
func civilDate(days int64) (y, m, d int) {
	era, doe := divFloor(days+719468, 146097)
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}

// divFloor is a/b and a%b rounded towards minus infinity (b > 0).
func divFloor(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q, r = q-1, r+b
	}
	return q, r
}

package operator

// CheckLocationFields validates a location's name, time zone and currency
// by the rules a new location is made with (the currency defaults to EUR),
// for an edit of one; the fields come back as they are to be stored.
func CheckLocationFields(f LocationFields) (LocationFields, error) {
	l, err := newLocation("", f, "name", 0)
	return LocationFields{Name: l.Name, Timezone: l.Timezone, Currency: l.CurrencyCode}, err
}

package workshop

import "time"

// QuoteStepsOf are the services of an availability quote, one step each
// in the order of codes, from the location's catalog items by code; an
// unknown or inactive code is refused on serviceCodes. The API's quote
// and the application's new-job form read them so.
func QuoteStepsOf(items map[string]CatalogItem, codes []string) ([]QuoteStep, error) {
	var v Validation
	steps := make([]QuoteStep, 0, len(codes))
	for i, code := range codes {
		it, ok := items[code]
		if !ok || !it.IsActive {
			v.AddCode("serviceCodes", "unknown_service_code", "serviceCodes[%d]: %s is not an active service of the location's catalog.", i, code)
			continue
		}
		steps = append(steps, QuoteStep{ServiceCode: code, Duration: time.Duration(it.EstimatedDuration) * time.Minute,
			RequiredSkills: it.RequiredSkills})
	}
	return steps, v.Err()
}

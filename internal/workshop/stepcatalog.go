package workshop

import "strings"

// CompleteStep completes a new step with the catalog item its serviceCode
// names (contract section 8): the item must be an active one of the job's
// location (item nil: not found), and supplies the label (its name) and
// the estimated duration when they were omitted ("" and 0). A step without
// serviceCode must have both.
func CompleteStep(st Step, item *CatalogItem) (Step, error) {
	var v Validation
	if st.Label != "" && strings.TrimSpace(st.Label) == "" {
		v.Add("label", "label cannot be blank.")
	}
	if st.ServiceCode != nil {
		if item == nil || !item.IsActive {
			v.AddCode("serviceCode", "unknown_service_code", "serviceCode %s is not an active service of the job's location's catalog.", *st.ServiceCode)
			return st, v.Err()
		}
		if st.Label == "" {
			st.Label = item.Name
		}
		if st.EstimatedDuration == 0 {
			st.EstimatedDuration = item.EstimatedDuration
		}
	}
	if st.Label == "" {
		v.Add("label", "label is required unless serviceCode names a catalog item.")
	}
	if st.EstimatedDuration == 0 {
		v.Add("estimatedDuration", "estimatedDuration is required unless serviceCode names a catalog item.")
		checkLength(&v, "label", st.Label, MaxStepLabelLength)
	} else {
		checkStepFields(&v, st)
	}
	return st, v.Err()
}

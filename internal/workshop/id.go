package workshop

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// Type prefixes of the opaque identifiers (contract section 2).
const (
	PrefixOrg         = "org_"
	PrefixLocation    = "loc_"
	PrefixUser        = "usr_"
	PrefixKey         = "key_"
	PrefixJob         = "job_"
	PrefixStep        = "stp_"
	PrefixTechnician  = "tec_"
	PrefixBay         = "bay_"
	PrefixCatalogItem = "cat_"
	PrefixAttendance  = "att_"
	PrefixIntegration = "int_"
	PrefixWebhook     = "whk_"
	PrefixEvent       = "evt_"
	PrefixDelivery    = "dlv_"
	PrefixRequest     = "req_"
	PrefixDayClose    = "dcl_"
)

// crockford is Crockford's base32 alphabet in lower case: no i, l, o or u, so
// an id read aloud to support cannot be misheard.
const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// NewID returns prefix followed by 26 characters: 48 bits of milliseconds
// then 80 random bits. Ids made later sort later, which keeps index inserts
// at the right edge of the B-tree and makes ids useful in logs.
func NewID(prefix string) string {
	var b [16]byte
	ms := uint64(time.Now().UnixMilli())
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the runtime guarantees it does not
	}
	out := make([]byte, len(prefix)+26)
	copy(out, prefix)
	encode32(out[len(prefix):], b)
	return string(out)
}

// encode32 writes 128 bits as 26 base32 characters (the top two bits padded).
func encode32(dst []byte, b [16]byte) {
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	for i := 25; i >= 0; i-- {
		dst[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
}

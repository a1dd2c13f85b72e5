package store

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
)

// SchemaDigest names the schema the embedded migrations of a dialect
// ("sqlite" or "postgres") build: a hash of their file names and contents.
// Tests clone their databases from a template migrated once and named by
// it (storetest), so a changed migration makes a new template.
func SchemaDigest(dialect string) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations, "migrations/"+dialect, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := migrations.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

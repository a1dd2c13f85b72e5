package webapp

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var staticFS embed.FS

// asset is an embedded file served under a name that changes with its
// content, so browsers may keep it forever.
type asset struct {
	body        []byte
	contentType string
}

// assets by served name; assetPaths maps a file's own name to its path.
var assets, assetPaths = loadAssets()

// loadAssets names each file by its content: name.HASH.ext, except files
// whose name carries their version already (htmx-2.0.11.min.js).
func loadAssets() (map[string]asset, map[string]string) {
	entries, err := staticFS.ReadDir("static")
	if err != nil {
		panic(err)
	}
	byName, paths := map[string]asset{}, map[string]string{}
	for _, e := range entries {
		body, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err)
		}
		served := e.Name()
		if !strings.HasPrefix(served, "htmx-") {
			sum := sha256.Sum256(body)
			ext := path.Ext(served)
			served = strings.TrimSuffix(served, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		}
		byName[served] = asset{body: body, contentType: mime.TypeByExtension(path.Ext(served))}
		paths[e.Name()] = "/static/" + served
	}
	return byName, paths
}

func serveAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(a.body)
}

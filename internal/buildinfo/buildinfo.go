// Package buildinfo tells what the running binary was built from, as the
// Go toolchain recorded it: the module version, the commit and the Go
// version. `workshop version` and the workshop_build_info metric say it.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info is the build of the running binary.
type Info struct {
	Version   string // the module version (v1.2.3, a pseudo-version), or "dev" for a build from a work tree
	Commit    string // the VCS revision, with "-dirty" if the tree had changes; "" when unknown
	GoVersion string // the Go toolchain, go1.26.8
}

// Read reads the binary's build information.
func Read() Info {
	info := Info{Version: "dev", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		info.Version = v
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && info.Commit != "" {
		info.Commit += "-dirty"
	}
	return info
}

// Package buildinfo reads what the Go toolchain recorded about the build
// of the running binary: the module version and the VCS commit. The
// version command and the build_info metric print the same values.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info is the running binary's build.
type Info struct {
	Version   string // the main module's version; "(devel)" for a build from a work tree
	Commit    string // the VCS revision, "-dirty" appended when the tree had changes; "unknown" when not recorded
	GoVersion string // the toolchain that built it
}

// Read returns the build info of the running binary. A binary built
// without module support, or a test binary, still gets every field.
func Read() Info {
	info := Info{Version: "(devel)", Commit: "unknown", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	if bi.Main.Version != "" {
		info.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && info.Commit != "unknown" {
		info.Commit += "-dirty"
	}
	return info
}

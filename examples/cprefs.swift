// The C API from Swift through the installed module map, without SwiftPM
// (in this directory):
//
//   . ../build/stage/env.sh   # for the private prefix of `make example` only
//   swiftc -I $(pkg-config --variable=includedir prefs)/prefs \
//       $(pkg-config --libs prefs) \
//       -Xlinker -rpath -Xlinker $(pkg-config --variable=libdir prefs) \
//       cprefs.swift -o cprefs && ./cprefs
//
// (the rpath only for a private prefix). No pointer casts: the installed
// API notes make every value reference an OpaquePointer.
import CPrefs

let app = "com.example.cprefs"
let size = PrefsNumberCreateInt64(14)
PrefsSetAppValue("FontSize", size, app)  // seen at once
PrefsRelease(size)

var valid = false
let fontSize = PrefsGetAppIntegerValue("FontSize", app, &valid)
print("FontSize = \(fontSize)")

if let value = PrefsCopyAppValue("FontSize", app), let text = PrefsCopyDescription(value) {
    print("stored as \(String(cString: text))")
    PrefsFree(text)
    PrefsRelease(value)
}
if !PrefsAppSynchronize(app) {  // on disk now
    let error = PrefsCopyLastError()
    if let error, let why = PrefsErrorCopyDescription(error) {
        print("not saved: \(String(cString: why))")
        PrefsFree(why)
    }
    PrefsRelease(error)
}

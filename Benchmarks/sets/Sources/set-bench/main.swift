// set-bench integer|string|dictionary N: N sets of an existing key of
// com.example.bench (make_fixture.sh's 1,000-key domain) through
// Preferences.set(_:forKey:), in memory (no synchronize). The values are
// made before the loop; two alternate so that every set changes the key.
import Glibc
import PrefsCore

func fail(_ message: String) -> Never {
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(2)
}

let args = CommandLine.arguments
guard args.count == 3, let n = Int(args[2]) else { fail("usage: set-bench integer|string|dictionary N\n") }
let key: String
let a: PropertyList
let b: PropertyList
switch args[1] {
case "integer":
    (key, a, b) = ("FontSize", 12, 14)
case "string":
    (key, a, b) = ("FontName", "Helvetica Neue", "Menlo Regular")
case "dictionary":
    (key, a, b) = (
        "key0000", ["Name": "Helvetica Neue", "Size": 12, "Bold": true], ["Name": "Menlo Regular", "Size": 12, "Bold": true]
    )
default:
    fail("kind: integer, string or dictionary\n")
}
let prefs = try Preferences(applicationID: "com.example.bench")
guard prefs.propertyList(forKey: key) != nil else { fail("the key is not in the domain\n") }
// Benchmarks/sets/run.sh counts inside trySet only.
for i in 0..<n { try prefs.trySet(i & 1 == 0 ? a : b, forKey: key) }

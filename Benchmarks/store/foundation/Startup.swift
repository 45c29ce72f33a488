// Startup.swift: a new process's first read of a 1,000-key domain with
// Foundation's UserDefaults. Build: swiftc -O Startup.swift -o startup_foundation
import Foundation

let value = UserDefaults(suiteName: "com.example.bench")!.object(forKey: "key0500")
exit(value == nil ? 1 : 0)

let usage = """
    usage: prefs [-currentHost | -host <hostname>] <command>

    commands:
      read                             every domain of the user, as one dictionary
      read <domain>                    the domain, as an old-style property list
      read <domain> <key>              one value
      read-type <domain> <key>         the type of one value
      write <domain> '<dictionary>'    replace the whole domain with a dictionary
      write <domain> <key> <value>     set one value (value forms below)
      rename <domain> <old_key> <new_key>
                                       move a value to a new key
      delete <domain>                  remove every key of the domain
      delete <domain> <key>            remove one key
      import <domain> <path> | -       set every key of a plist dictionary file (- : stdin)
      export <domain> <path> | - [-format xml1 | binary1]
                                       write the domain as an XML (default) or binary
                                       property list (- : stdout)
      domains                          the user's domain names, comma-separated
      find <word>                      keys and string values containing <word> (any case)
      watch <domain> [<key>]           print each change until interrupted
      profile install [-user <name>] <file>
                                       apply a configuration profile (.mobileconfig,
                                       unsigned) as managed drop-ins
      profile remove [-user <name>] <identifier>
                                       remove an installed profile's drop-ins
      profile list                     the installed profiles
      explain <domain> [<key>]         each key's value, the layer it came from (forced when
                                       managed), and the values it shadows
      schema list                      installed schemas: application, file, keys
      schema show <domain>             the installed schema's keys: type, default, title
      schema describe <domain> <key>   one key: type, title, default, range or values
      schema check <file>              "<file>: OK" when every default fits its specifier
      schema c <file | domain>         a C99 header: a constant, getter and setter per key
      schema swift <file | domain>     Swift typed keys (extension Preferences.Keys)
      sync folder [<path>]             show or set the sync folder (which Syncthing or
                                       another engine replicates between your machines)
      sync add <domain> <key>...       declare keys synced: they follow you to every machine
      sync remove <domain> <key>...    stop syncing them (their value stays, locally)
      sync status [<domain>]           the folder, the machines seen, and each synced key's
                                       value, the machine that wrote it and when
      ui [<domain>]                    a live full-screen view of the domain's search list
                                       (without <domain>: of the list of domains)
      convert -lint <file>...          check property-list files: "<file>: OK" or why not
      convert -convert xml1|binary1 [-o <out>] <file>...
                                       rewrite files as XML or binary property lists
                                       (-o: to <out> instead, - : stdout; one file)
      convert -p <file>                print a property-list file as read prints a value
      help                             this text
      --version                        the version of libprefs, whose command this is

    <domain>: an application ID (com.example.app); -g, -globalDomain or
      NSGlobalDomain for the global domain; or an absolute path to a plist file
      (with or without .plist).
    -currentHost: the current-host (ByHost) domain; -host <hostname>: the same,
      for this machine's host id or host name only.

    <value>:
      <text>                           old-style plist text when it starts with ( { < " or ',
                                       e.g. '(a, b)', '{k = v;}', '<0102>'; otherwise a string
      -string <text>                   a string
      -data <hex>                      bytes, an even number of hex digits
      -int <n> | -integer <n>          a 64-bit integer (decimal or 0x hex)
      -float <x>                       a real number
      -bool <b> | -boolean <b>         TRUE, FALSE, YES or NO, in any case
      -date <d>                        2026-01-02T03:04:05Z, '2026-01-02 03:04:05 +0000',
                                       or '2026-01-02 03:04:05' (local time)
      -array <item>...                 an array (each item may carry one of the flags above)
      -array-add <item>...             append to the array (made when absent)
      -dict <key> <item>...            a dictionary
      -dict-add <key> <item>...        add to the dictionary (made when absent)

    Exit status: 0 success, 1 absent or refused, 64 usage error.

    """

/// The usage text, under the name the command was invoked with.
var usageText: String {
    programName == "prefs" ? usage : usage.replacingOccurrences("usage: prefs", "usage: \(programName)")
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        guard let r = firstRange(of: target) else { return self }
        return self[..<r.lowerBound] + replacement + self[r.upperBound...]
    }
}

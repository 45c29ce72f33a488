/// Who a domain belongs to.
package enum DomainUser: Hashable, Sendable {
    /// The user running the process (`kPrefsCurrentUser`).
    case current
    /// Every user of the machine (`kPrefsAnyUser`).
    case any
}

/// Which machine a domain applies to.
package enum DomainHost: Hashable, Sendable {
    /// This machine only (`kPrefsCurrentHost`), keyed by `/etc/machine-id`.
    case current
    /// Every machine (`kPrefsAnyHost`).
    case any
}

/// One stored domain: an application (or the global domain) for a user and
/// a host.
package struct DomainID: Hashable, Sendable, CustomStringConvertible {
    /// A validated application ID; ``globalDomainName`` for the global domain.
    package let application: String
    package let user: DomainUser
    package let host: DomainHost

    package init(application: String, user: DomainUser, host: DomainHost) {
        self.application = application
        self.user = user
        self.host = host
    }

    package var description: String {
        "\(application) (\(user == .current ? "current user" : "any user"), \(host == .current ? "current host" : "any host"))"
    }
}

/// The name the global domain is stored under, as on macOS.
package let globalDomainFileName = ".GlobalPreferences"
/// The name programs use for the global domain.
package let globalDomainName = "NSGlobalDomain"

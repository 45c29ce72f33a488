import Foundation
import Testing

@testable import PrefsCore

// The language domains: tags from locale names and from the environment.

@Suite("Languages")
struct LanguageTests {
    /// AppleLanguages and AppleLocale come from the environment when no
    /// domain answers, and a domain answers before them. (The environment
    /// of this process is whatever the test runner has; see the child test
    /// below for fixed values.)
    @Test func derivedLanguageValues() throws {
        try inSandbox { box in
            let store = box.store()
            let expected = Languages.fromEnvironment()
            #expect(try store.value(forKey: "AppleLanguages", application: storeApp) == .array(expected.list.map { .string($0) }))
            #expect(try store.value(forKey: "AppleLocale", application: storeApp) == .string(expected.locale))
            try store.set([("AppleLocale", "xx_YY")], in: own())
            #expect(try store.value(forKey: "AppleLocale", application: storeApp) == .string("xx_YY"))
            try store.set([("AppleLocale", nil)], in: own())
            #expect(try store.value(forKey: "AppleLocale", application: storeApp) == .string(expected.locale))
            store.setArguments(["p", "-AppleLanguages", "(de, fr)"])
            #expect(try store.value(forKey: "AppleLanguages", application: storeApp) == .array([.string("de"), .string("fr")]))
            #expect(try store.dictionary(application: storeApp)["AppleLanguages"] == .array([.string("de"), .string("fr")]))
        }
    }

    @Test func languageTagsFromLocaleNames() {
        #expect(Languages.tag("fr_FR.UTF-8") == "fr-FR")
        #expect(Languages.tag("fr_FR.UTF-8@euro") == "fr-FR")
        #expect(Languages.tag("de") == "de")
        #expect(Languages.localeID("fr_FR.UTF-8") == "fr_FR")
        #expect(Languages.localeID("pt_BR@latin") == "pt_BR")
        #expect(Languages.localeID("") == nil)
    }

    /// With LANGUAGE and LC_ALL fixed before the process starts: the
    /// languages in order, the locale, and language domains searched in the
    /// user's order, only for languages of the user.
    @Test func languagesFromTheEnvironment() {
        let r = runChildTest(
            named: "languagesChild", role: "languages",
            environment: [
                "LANGUAGE": "de_DE.UTF-8:fr", "LC_ALL": "pt_BR.UTF-8",
                "LC_MESSAGES": "it_IT.UTF-8", "LANG": "es_ES.UTF-8",
            ])
        #expect(r.status == 0, "child failed:\n\(r.output)")
        #expect(r.output.contains("languagesChild() passed"), "the child test did not run:\n\(r.output)")
        let r2 = runChildTest(
            named: "languagesChild", role: "languages-lang-only",
            environment: ["LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "fr_FR.UTF-8"])
        #expect(r2.status == 0, "child failed:\n\(r2.output)")
        #expect(r2.output.contains("languagesChild() passed"), "the child test did not run:\n\(r2.output)")
    }

    @Test(.enabled(if: isChildRole("languages") || isChildRole("languages-lang-only")))
    func languagesChild() throws {
        try inSandbox { box in
            let store = box.store()
            func v(_ k: String) throws -> PropertyList? { try store.value(forKey: k, application: storeApp) }
            if isChildRole("languages-lang-only") {
                #expect(try v("AppleLanguages") == .array([.string("fr-FR")]))
                #expect(try v("AppleLocale") == .string("fr_FR"))
                store.setVolatileDomain("fr-FR", plistDict(["L": "fr-FR"]))
                #expect(try v("L") == .string("fr-FR"))
                return
            }
            #expect(try v("AppleLanguages") == .array([.string("de-DE"), .string("fr")]))
            #expect(try v("AppleLocale") == .string("pt_BR"))
            store.setVolatileDomain("it-IT", plistDict(["L": "it-IT"]))  // not a language of the user
            #expect(try v("L") == nil)
            store.setVolatileDomain("fr", plistDict(["L": "fr", "F": "only-fr"]))
            #expect(try v("L") == .string("fr"))
            store.setVolatileDomain("de-DE", plistDict(["L": "de-DE"]))
            #expect(try v("L") == .string("de-DE"))
            #expect(try v("F") == .string("only-fr"))
            #expect(try store.dictionary(application: storeApp)["L"] == .string("de-DE"))
            // Registration is searched after the language domains.
            try store.register(plistDict(["L": "registered", "R": "registered"]), application: storeApp)
            #expect(try v("L") == .string("de-DE"))
            #expect(try v("R") == .string("registered"))
            store.setVolatileDomain("de-DE", nil)
            #expect(try v("L") == .string("fr"))
        }
    }
}

/// English plurals as parse-server names its find queries (`cats`, `gameScores`, `people`), which it takes from the
/// `pluralize` package: the same irregular words, uncountable words and suffix rules for the words class names are
/// made of. Only the last word of a camel-cased name changes, keeping its case.
enum Pluralization {
    static func plural(_ word: String) -> String {
        let lower = word.lowercased()
        if let irregular = irregular[lower] { return String(word.prefix(word.count - lower.count)) + irregular }
        for (singular, plural) in irregular where lower.hasSuffix(singular) && isWordEnd(word, suffixLength: singular.count) {
            return String(word.dropLast(singular.count)) + restoringCase(of: String(word.suffix(singular.count)), plural)
        }
        if uncountable.contains(where: { lower.hasSuffix($0) && isWordEnd(word, suffixLength: $0.count) })
            || uncountableEndings.contains(where: { lower.hasSuffix($0) }) {
            return word
        }
        for rule in rules {
            if let replaced = rule(lower) {
                return String(word.prefix(replaced.keep)) + restoringCase(of: String(word.dropFirst(replaced.keep)), replaced.ending)
            }
        }
        return word.hasSuffix("s") || word.hasSuffix("S") ? word : word + "s"
    }

    /// Whether the last `suffixLength` characters of `word` are a word of their own: the whole name, or a camel-cased
    /// word starting with a capital.
    private static func isWordEnd(_ word: String, suffixLength: Int) -> Bool {
        guard suffixLength < word.count else { return true }
        return word.dropFirst(word.count - suffixLength).first?.isUppercase == true
    }

    private static func restoringCase(of original: String, _ replacement: String) -> String {
        guard let first = original.first, first.isUppercase else { return replacement }
        if original.allSatisfy({ !$0.isLowercase }) { return replacement.uppercased() }
        return replacement.prefix(1).uppercased() + replacement.dropFirst()
    }

    private static let irregular: [String: String] = [
        "person": "people", "man": "men", "woman": "women", "child": "children", "ox": "oxen", "foot": "feet",
        "tooth": "teeth", "goose": "geese", "die": "dice", "quiz": "quizzes", "thief": "thieves", "human": "humans",
        "proof": "proofs", "valve": "valves", "groove": "grooves", "axe": "axes", "echo": "echoes", "hero": "heroes",
        "potato": "potatoes", "tomato": "tomatoes", "index": "indices", "matrix": "matrices", "vertex": "vertices",
        "criterion": "criteria", "datum": "data", "medium": "media", "schema": "schemata", "genus": "genera",
    ]

    private static let uncountable: [String] = [
        "equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "moose", "deer", "news",
        "music", "software", "hardware", "feedback", "traffic", "police", "staff", "weather", "aircraft", "bison",
        "advice", "furniture", "luggage", "research", "knowledge", "homework", "data", "media", "metadata",
    ]

    private static let uncountableEndings = ["pox", "measles", "ois", "ous"]

    private static let vowels: Set<Character> = ["a", "e", "i", "o", "u"]

    /// Each rule: the characters to keep from the start and the ending that replaces the rest; most specific first.
    private static let rules: [@Sendable (String) -> (keep: Int, ending: String)?] = [
        { word in word.hasSuffix("ese") && !vowels.contains(char(word, 4)) ? (word.count, "") : nil },
        { word in word.hasSuffix("men") || word.hasSuffix("man") ? (word.count - 3, "men") : nil },
        { word in
            for ending in ["mouse", "louse"] where word.hasSuffix(ending) { return (word.count - 4, "ice") }
            return nil
        },
        { word in
            for stem in ["matr", "cod", "mur", "sil", "vert", "ind", "append"] {
                for ending in ["ix", "ex"] where word.hasSuffix(stem + ending) { return (word.count - 2, "ices") }
            }
            return nil
        },
        { word in
            for ending in ["x", "ch", "ss", "sh", "zz"] where word.hasSuffix(ending) { return (word.count, "es") }
            return nil
        },
        { word in
            // key -> keys, but money-like endings of a consonant and -ley/-ney keep their "ey".
            guard word.hasSuffix("y"), word.count >= 2 else { return nil }
            let before = char(word, 2)
            if !vowels.contains(before) && before != "y" { return (word.count - 1, "ies") }
            if word.hasSuffix("quy") { return (word.count - 1, "ies") }
            return nil
        },
        { word in
            for stem in ["kni", "wi", "li"] where word.hasSuffix(stem + "fe") { return (word.count - 2, "ves") }
            for stem in ["ar", "l", "ea", "eo", "oa", "hoo"] where word.hasSuffix(stem + "f") { return (word.count - 1, "ves") }
            return nil
        },
        { word in word.hasSuffix("sis") ? (word.count - 2, "es") : nil },
        { word in
            for ending in ["axis", "testis"] where word.hasSuffix(ending) { return (word.count - 2, "es") }
            return nil
        },
        { word in
            if word.hasSuffix("us"), word.count >= 3, !["a", "o", "u"].contains(char(word, 3)) { return (word.count, "es") }
            for ending in ["alias", "gas", "ris", "tlas", "tmas"] where word.hasSuffix(ending) { return (word.count, "es") }
            return nil
        },
    ]

    /// The character `offset` places from the end (1: the last).
    private static func char(_ word: String, _ offset: Int) -> Character {
        guard word.count >= offset else { return " " }
        return word[word.index(word.endIndex, offsetBy: -offset)]
    }
}

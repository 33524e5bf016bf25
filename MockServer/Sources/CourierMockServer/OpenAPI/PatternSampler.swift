/// A string that matches a simple regular expression, for schemas with a
/// `pattern`: literals, escapes (`\d`, `\w`, `\s`, `\.`), classes (`[A-Z0-9_]`),
/// the quantifiers `{n}`, `{n,m}`, `?`, `*`, `+` (at their least, or one),
/// `^` and `$`. Anything else (groups, alternation, lookaround) gives `nil`,
/// and the sampler keeps its plain value.
enum PatternSampler {
    static func sample(_ pattern: String, variant: UInt64) -> String? {
        var characters = Array(pattern)
        if characters.first == "^" { characters.removeFirst() }
        if characters.last == "$", characters.dropLast().last != "\\" { characters.removeLast() }
        var output = ""
        var index = 0
        var step = variant
        while index < characters.count {
            let choices: [Character]
            switch characters[index] {
            case "(", ")", "|", "^", "$", "]", "}":
                return nil
            case ".":
                choices = ["a"]
                index += 1
            case "\\":
                guard index + 1 < characters.count else { return nil }
                let escaped = characters[index + 1]
                switch escaped {
                case "d": choices = Array("0123456789")
                case "w": choices = Array("abcdefghijklmnopqrstuvwxyz0123456789")
                case "s": choices = [" "]
                case "D", "W", "S", "b", "B": return nil
                default: choices = [escaped]
                }
                index += 2
            case "[":
                guard let (set, next) = characterClass(characters, from: index) else { return nil }
                choices = set
                index = next
            default:
                choices = [characters[index]]
                index += 1
            }
            guard !choices.isEmpty else { return nil }
            var count = 1
            if index < characters.count {
                switch characters[index] {
                case "?":
                    count = 0
                    index += 1
                case "*":
                    count = 0
                    index += 1
                case "+":
                    count = 1
                    index += 1
                case "{":
                    guard let close = characters[index...].firstIndex(of: "}") else { return nil }
                    let bounds = String(characters[(index + 1)..<close]).split(
                        separator: ",", omittingEmptySubsequences: false)
                    guard let low = bounds.first.flatMap({ Int($0) }), low <= 256 else { return nil }
                    count = low
                    index = close + 1
                default: break
                }
            }
            for _ in 0..<count {
                output.append(choices[Int(step % UInt64(choices.count))])
                step = step &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            }
        }
        return output
    }

    /// `[...]`: its characters (ranges spelled out), and the index after it.
    private static func characterClass(_ characters: [Character], from start: Int) -> ([Character], Int)? {
        var index = start + 1
        guard index < characters.count, characters[index] != "^" else { return nil }
        var set: [Character] = []
        while index < characters.count, characters[index] != "]" {
            var character = characters[index]
            if character == "\\", index + 1 < characters.count {
                index += 1
                switch characters[index] {
                case "d":
                    set += Array("0123456789")
                    index += 1
                    continue
                case "w":
                    set += Array("abcdefghijklmnopqrstuvwxyz")
                    index += 1
                    continue
                default: character = characters[index]
                }
            }
            if index + 2 < characters.count, characters[index + 1] == "-", characters[index + 2] != "]",
                let low = character.unicodeScalars.first?.value,
                let high = characters[index + 2].unicodeScalars.first?.value, low <= high, high - low < 128
            {
                set += (low...high).compactMap { Unicode.Scalar($0).map(Character.init) }
                index += 3
            } else {
                set.append(character)
                index += 1
            }
        }
        guard index < characters.count else { return nil }
        return (set, index + 1)
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's
    /// optional whitespace around a field value or a parameter).
    package var trimmingSpaces: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}

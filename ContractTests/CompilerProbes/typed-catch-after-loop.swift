// A compiler bug, reduced from a newcomer's program (a paging loop, then a
// call whose business error is caught): Swift 6.3.1's swift-frontend
// crashes with signal 11 in the MandatoryAllocBoxToStack pass
// (StackNesting::fixNesting) on a `do` whose only clause is `catch … where`
// around a typed `throws`, when a loop comes before it in the same
// top-level (or untyped-throws) scope. With Courier's types in place of
// these, it runs for over ten minutes instead. A final plain `catch`
// avoids it. scripts/check-snippets compiles this file (nothing depends on
// it) and says when a toolchain no longer crashes on it.
struct Failure: Error { var code: Int }
func fetch() throws(Failure) -> Int { 1 }
for value in [1, 2] { print(value) }
do {
    _ = try fetch()
} catch let error where error.code == 4 {
    print(error.code)
}

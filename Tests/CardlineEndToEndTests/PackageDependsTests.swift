import Foundation
import Testing

/// Issue 39 item 10: `make deb`'s Depends (packaging/depends.sh) names the package of each
/// library a binary links itself, at the oldest upstream version whose symbols it uses: no
/// build machine's revision (`2.36-9+deb12u14`), and no library that only comes in through
/// another (libbsd0 and libmd0 through libedit2). Checked on a small program that links
/// libedit as cardline does (the release binary takes minutes to build).
@Suite struct PackageDependsTests {
    let home = TemporaryHome()

    @Test func dependsNamesTheLinkedLibrariesAtTheirOldestUsableVersion() throws {
        let root = URL(fileURLWithPath: cardlineBinary).deletingLastPathComponent()
            .appendingPathComponent("../../..").standardized.path
        try "#include <histedit.h>\nint main(void) { return el_init(\"x\", 0, 0, 0) != 0; }\n".write(
            toFile: home.path + "/editline.c", atomically: true, encoding: .utf8)
        let compile = try runPiped(
            ["-c", "cc -I/usr/include/editline -o \"$0/editline\" \"$0/editline.c\" -ledit", home.path], input: "",
            environment: home.environment, executable: "/bin/sh")
        try #require(compile.status == 0, "\(compile.errors)")
        let depends = try runPiped(
            [home.path + "/editline"], input: "", environment: home.environment,
            executable: root + "/packaging/depends.sh")
        #expect(depends.status == 0, "\(depends.errors)")
        let packages = depends.output.trimmingCharacters(in: .newlines).split(separator: ", ")
        #expect(packages.map { $0.split(separator: " ").first ?? "" } == ["libc6", "libedit2"], "\(depends.output)")
        // Versions from the libraries' symbols, not what this machine has installed.
        #expect(!depends.output.contains("+deb") && !depends.output.contains("libbsd"), "\(depends.output)")
        #expect(packages.allSatisfy { $0.contains("(>= ") }, "\(depends.output)")
    }
}

// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "cardline",
    products: [
        .executable(name: "cardline", targets: ["cardline"]),
        .library(name: "CardKit", targets: ["CardKit"]),
        // The prompt for other Swift programs: `.product(name: "CardPrompt", package: "cardline")`.
        .library(name: "CardPrompt", targets: ["CardPrompt"]),
        // Sealing a card for a payment processor's public key (JWE, Adyen's field set):
        // `.product(name: "CardSeal", package: "cardline")`. The only product built on
        // swift-crypto, so CardKit and CardPrompt build without it.
        .library(name: "CardSeal", targets: ["CardSeal"]),
        // A free() that zeroes what it frees, for a program that embeds CardPrompt and wants
        // freed card text wiped as cardline does: linking it replaces free() for the whole
        // process, so it is a product of its own, never a dependency of the libraries above.
        .library(name: "CardProcessWide", targets: ["CProcessWide"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // RSA-OAEP, AES-GCM, AES-CBC and HMAC for CardSeal. 4.x, not 3.x: 4.x is built on
        // FoundationEssentials, 3.x on the whole Foundation (ICU), which would lengthen
        // cardline's start-up.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // Reading a payment card's chip, with no I/O: BER-TLV, data object lists and the read
        // flow as a state machine (command out, card answer in). CardKit hands its result to
        // the engine; the PC/SC transport (CardReader) and `.session` replay drive it.
        .target(name: "CardChip"),
        // PC/SC through pcsc-lite, loaded at run time with dlopen("libpcsclite.so.1") and dlsym,
        // its constants and structures defined here: the build needs nothing new, and cardline
        // starts without the library.
        .target(name: "CPCSC"),
        // The chip reader: the readers attached, a card read through ChipReadFlow with a time
        // limit, and the watcher the prompt runs on a thread of its own.
        .target(name: "CardReader", dependencies: ["CardChip", "CPCSC"]),
        // Pure core: rules, validation, formatting, the entry engine, the tray.
        .target(name: "CardKit", dependencies: ["CardChip"]),
        // The system libedit (histedit.h, -ledit).
        .systemLibrary(
            name: "CLibEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        // Fixed-arity wrappers around libedit's variadic calls, which Swift cannot call.
        .target(name: "CEditLine", dependencies: ["CLibEdit"], linkerSettings: [.linkedLibrary("tinfo")]),
        // The wiping free(), which changes the whole process: only executables depend on it.
        .target(name: "CProcessWide"),
        // The terminal front end (libedit bindings that drive the engine, the plain-line path),
        // rule folders, process protection, and the `CardPrompt` API other programs embed.
        .target(name: "CardPrompt", dependencies: ["CardKit", "CEditLine", "CardReader"]),
        // Encrypts an accepted card for its recipient's public key (PEM, JWK, Adyen's key text):
        // a JWE (RSA-OAEP-256 with A256GCM) or Adyen's encrypted card fields (A256CBC-HS512).
        .target(
            name: "CardSeal",
            dependencies: [
                "CardKit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "cardline",
            dependencies: [
                "CardKit", "CardPrompt", "CardSeal", "CProcessWide", "CardReader", "CardChip",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The pseudo-terminal driver and screen model the end-to-end tests and the bench share:
        // the one place a program is started on a pty (no Testing: the tests add that).
        .target(name: "PTYSupport"),
        // `make bench`: the performance figures in the README (not part of `make test`).
        .executableTarget(name: "cardline-bench", dependencies: ["CardKit", "PTYSupport"]),
        // The bench's baseline for the prompt rows: a bare libedit program (el_gets, a prompt).
        .executableTarget(name: "bench-bare-libedit", dependencies: ["CLibEdit"]),
        // An empty Swift program: the baseline `make bench` compares cardline's start-up with.
        .executableTarget(name: "bench-empty"),
        // The plain C loop `make bench` measures `check` against (Luhn and a prefix table).
        .executableTarget(name: "bench-c-loop"),
        // An example client of the CardPrompt library: a small order desk (built by `make test`).
        .executableTarget(name: "order-desk", dependencies: ["CardPrompt"]),
        .testTarget(name: "CardKitTests", dependencies: ["CardKit", "CardChip"]),
        // Runs the built binary: through a real pseudo-terminal, on pipes, and on files it writes.
        .testTarget(name: "CardlineEndToEndTests", dependencies: ["cardline", "order-desk", "CardKit", "CardPrompt", "PTYSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

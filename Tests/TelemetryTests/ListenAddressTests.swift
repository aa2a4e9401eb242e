import Testing

@testable import Telemetry

/// `--listen`: loopback unless a host is given; only numeric addresses (and `localhost`).
@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("9464", "127.0.0.1:9464"),
        (":9464", "127.0.0.1:9464"),
        ("127.0.0.1:9464", "127.0.0.1:9464"),
        ("localhost:9464", "127.0.0.1:9464"),
        ("0.0.0.0:9464", "0.0.0.0:9464"),
        ("10.1.2.3:80", "10.1.2.3:80"),
        ("127.0.0.1:0", "127.0.0.1:0"),
        ("[::1]:9464", "[::1]:9464"),
        ("[::]:9464", "[::]:9464"),
        ("[fe80::1:2]:1", "[fe80::1:2]:1"),
        ("[2001:db8:0:0:0:0:0:1]:443", "[2001:db8:0:0:0:0:0:1]:443"),
    ])
    func accepted(_ text: String, _ expected: String) throws {
        let address = try ListenAddress.parse(text).get()
        #expect(address.description == expected)
    }

    @Test(arguments: [
        "", ":", "host:9464", "example.com:80", "9464:", "65536", "-1", "12a", "1.2.3:80", "1.2.3.4.5:80",
        "256.0.0.1:80", "01.2.3.4:80", "::1:9464", "[::1]", "[::1]9464", "[1:2:3:4:5:6:7:8:9]:80", "[1::2::3]:80",
        "[fe80::1%eth0]:80", "127.0.0.1:99999", " 127.0.0.1:80", "127.0.0.1:+80",
    ])
    func refused(_ text: String) {
        guard case .failure(let error) = ListenAddress.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.description.hasPrefix("--listen \(text): give HOST:PORT, :PORT or PORT"))
    }
}

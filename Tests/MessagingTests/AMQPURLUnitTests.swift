import Testing
@testable import Messaging

@Suite struct AMQPURLUnitTests {
    @Test func defaults() throws {
        let url = try AMQPURL("amqp://broker")
        #expect(url.host == "broker")
        #expect(url.port == 5672)
        #expect(url.user == "guest")
        #expect(url.password == "guest")
        #expect(url.vhost == "/")
    }

    @Test func everyPart() throws {
        let url = try AMQPURL("amqp://alice:s3cret@127.0.0.1:15682/")
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 15682)
        #expect(url.user == "alice")
        #expect(url.password == "s3cret")
        #expect(url.vhost == "/")
    }

    @Test func userWithoutPasswordKeepsTheDefaultPassword() throws {
        let url = try AMQPURL("amqp://alice@broker")
        #expect(url.user == "alice")
        #expect(url.password == "guest")
    }

    @Test func credentialsArePercentDecoded() throws {
        let url = try AMQPURL("amqp://us%40er:p%3Ass%2Fw@broker")
        #expect(url.user == "us@er")
        #expect(url.password == "p:ss/w")
    }

    @Test(arguments: [
        ("amqp://broker/", "/"), ("amqp://broker/%2F", "/"), ("amqp://broker/%2f", "/"),
        ("amqp://broker/parse", "parse"), ("amqp://broker/%2Fparse", "/parse"), ("amqp://broker:5672/a%20b", "a b"),
    ])
    func vhost(text: String, vhost: String) throws {
        #expect(try AMQPURL(text).vhost == vhost)
    }

    @Test(arguments: ["http://broker/", "amqps://broker/", "broker:5672", "", "amqp://", "amqp:///vhost",
                      "amqp://:5672/", "not a url"])
    func invalidURLsThrow(text: String) {
        #expect(throws: MessagingError.invalidURL(text)) { try AMQPURL(text) }
    }

    @Test func descriptionHidesThePassword() throws {
        let url = try AMQPURL("amqp://alice:s3cret@broker:5673/parse")
        #expect(url.description == "amqp://alice@broker:5673/parse")
        #expect(!url.description.contains("s3cret"))
        #expect(try AMQPURL("amqp://broker").description == "amqp://guest@broker:5672/")
    }

    @Test func aCommaSeparatedListNamesTheNodesOfACluster() throws {
        let url = try AMQPURL("amqp://u:p@10.0.0.1:5672/parse, amqp://u:p@10.0.0.2:5673/parse,amqp://h3")
        #expect(url.host == "10.0.0.1")
        #expect(url.nodes.map(\.host) == ["10.0.0.1", "10.0.0.2", "h3"])
        #expect(url.nodes.map(\.port) == [5672, 5673, 5672])
        #expect(url.nodes.map(\.vhost) == ["parse", "parse", "/"])
        #expect(url.nodes.allSatisfy { $0.otherNodes.isEmpty })
        #expect(url.description == "amqp://u@10.0.0.1:5672/parse,amqp://u@10.0.0.2:5673/parse,amqp://guest@h3:5672/")
        #expect(try AMQPURL("amqp://broker").nodes == [try AMQPURL("amqp://broker")])
    }

    @Test(arguments: [("amqp://a,http://b", "http://b"), ("amqp://a,", ""), (",amqp://a", "")])
    func aBadNodeInTheListIsNamed(text: String, bad: String) {
        #expect(throws: MessagingError.invalidURL(bad)) { try AMQPURL(text) }
    }
}

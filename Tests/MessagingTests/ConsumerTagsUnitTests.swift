import Testing
@testable import Messaging

@Suite struct ConsumerTagsUnitTests {
    @Test func eachTagLeadsBackToItsConsumerOrToTheReplies() {
        let tags = ConsumerTags(connectionName: "posts-commands", consumers: 2)
        #expect(tags.tag(ofConsumer: 1) == "posts-commands.1")
        #expect(tags.target("posts-commands.0") == .consumer(0))
        #expect(tags.target(tags.tag(ofConsumer: 1)) == .consumer(1))
        #expect(tags.target(tags.replies) == .replies)
        #expect(tags.replies == "posts-commands.replies")
        #expect(tags.target("posts-commands.2") == nil)
        #expect(tags.target("other.0") == nil)
    }
}

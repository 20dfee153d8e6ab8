import Testing
@testable import GatewayCore

@Suite struct VoteFieldsTests {
    @Test func plainEntryIsAVoteFieldInEveryClass() {
        let fields = VoteRoute.Fields(["votes"])
        #expect(fields.isVoteField("votes", in: "Post"))
        #expect(fields.isVoteField("votes", in: "Comment"))
        #expect(!fields.isVoteField("likes", in: "Post"))
    }

    @Test func classEntryIsAVoteFieldInThatClassOnly() {
        let fields = VoteRoute.Fields(["Post.likes"])
        #expect(fields.isVoteField("likes", in: "Post"))
        #expect(!fields.isVoteField("likes", in: "Comment"))
        // The entry names a field of a class, not a field literally called "Post.likes".
        #expect(!fields.isVoteField("Post.likes", in: "Post"))
    }

    @Test func entriesAreSortedIntoTheirKinds() {
        let fields = VoteRoute.Fields(["votes", "Post.likes", "score", "Comment.stars"])
        #expect(fields.everyClass == ["votes", "score"])
        #expect(fields.perClass == ["Post.likes", "Comment.stars"])
    }

    @Test func namesAreCaseSensitive() {
        let fields = VoteRoute.Fields(["votes", "Post.likes"])
        #expect(!fields.isVoteField("Votes", in: "Post"))
        #expect(!fields.isVoteField("likes", in: "post"))
    }

    @Test func noEntriesMeansNoVoteFields() {
        let fields = VoteRoute.Fields([])
        #expect(!fields.isVoteField("votes", in: "Post"))
    }
}

import Testing
@testable import Messaging

@Suite struct BrokerNodeRotationUnitTests {
    @Test func oneNodePausesAfterEveryFailure() {
        var rotation = BrokerNodeRotation(count: 1)
        #expect(rotation.connectFailed() == true)
        #expect(rotation.connectFailed() == true)
        #expect(rotation.current == 0)
    }

    @Test func severalNodesAreAllTriedBeforeAPause() {
        var rotation = BrokerNodeRotation(count: 3)
        #expect(rotation.connectFailed() == false)
        #expect(rotation.current == 1)
        #expect(rotation.connectFailed() == false)
        #expect(rotation.current == 2)
        #expect(rotation.connectFailed() == true)
        #expect(rotation.current == 0)
        #expect(rotation.connectFailed() == false)
    }

    @Test func aLostConnectionMovesToTheNextNodeAndAConnectionStartsTheCountAfresh() {
        var rotation = BrokerNodeRotation(count: 3)
        #expect(rotation.connectFailed() == false)
        rotation.connected()
        rotation.connectionLost()
        #expect(rotation.current == 2)
        // The node that was lost and the next one fail: still one to try before pausing.
        #expect(rotation.connectFailed() == false)
        #expect(rotation.connectFailed() == false)
        #expect(rotation.connectFailed() == true)
        #expect(rotation.current == 2)
    }
}

import VotesCore
import Foundation
import ServiceKit

exit(await ServiceHost.main(VotesService.definition))

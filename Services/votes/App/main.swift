import Foundation
import VotesCore

exit(await VotesService.main())

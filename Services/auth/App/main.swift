import AuthCore
import Foundation
import ServiceKit

exit(await ServiceHost.main(AuthService.definition))

import CloudCore
import Foundation
import ServiceKit

exit(await ServiceHost.main(CloudService.definition))

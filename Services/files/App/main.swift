import FilesCore
import Foundation
import ServiceKit

exit(await ServiceHost.main(FilesService.definition))

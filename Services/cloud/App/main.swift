import CloudCore
import Foundation

exit(await CloudService.main())

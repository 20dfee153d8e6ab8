import LiveCore
import Foundation

exit(await LiveService.main())

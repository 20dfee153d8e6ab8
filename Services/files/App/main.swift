import FilesCore
import Foundation

exit(await FilesService.main())

import sys

from grader.cli import main
from grader.gpu import use_bus_order

use_bus_order()
sys.exit(main())

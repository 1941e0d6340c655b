import sys

from grader.cli import main
from grader.execution.gpu import use_bus_order

use_bus_order()
sys.exit(main())

import Metrics
import Prometheus

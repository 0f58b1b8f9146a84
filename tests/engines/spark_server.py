"""A local Spark Connect server for the tests: ``python spark_server.py PORT WAREHOUSE [DRIVER_MEMORY]``.

Classic PySpark with Spark Connect's plugin, listening on PORT and requiring the token in
``SPARK_CONNECT_AUTHENTICATE_TOKEN``; prints ``ready`` once it answers, then runs until its
standard input closes (or it is killed)."""
from __future__ import annotations

import os
import sys


def main() -> None:
    port, warehouse = sys.argv[1], sys.argv[2]
    memory = sys.argv[3] if len(sys.argv) > 3 else "1g"
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("shell-agent-lab-tests")
             .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
             .config("spark.connect.grpc.binding.port", port)
             .config("spark.connect.grpc.binding.address", "127.0.0.1")
             .config("spark.connect.authenticate.token", os.environ["SPARK_CONNECT_AUTHENTICATE_TOKEN"])
             .config("spark.sql.warehouse.dir", warehouse)
             .config("spark.ui.enabled", "false")
             .config("spark.driver.memory", memory)
             .config("spark.sql.shuffle.partitions", "4")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    print("ready", flush=True)
    sys.stdin.read()
    spark.stop()


if __name__ == "__main__":
    main()

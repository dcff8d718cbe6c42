"""tf.distribute: running one training script as several replicas (processes or devices)."""

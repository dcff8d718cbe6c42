"""tf.train.Example records: their protobuf message classes (`proto`) and the tf.io parsers that
turn serialized records into dense tensors, SparseTensors and RaggedTensors (`parsing`,
`ragged_feature`). The parsers build all three kinds of value, so they sit above ops/, sparse/
and ragged/.
"""

# Reads crm.lead-assignments with Confluent's Python client: pip install "confluent-kafka[json,schemaregistry]".
from confluent_kafka import Consumer, KafkaException
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext


def read_assignments(bootstrap: str, registry_url: str, topic: str, group: str, handle, seen_event_ids: set, keep_going) -> None:
    """Calls handle(assignment) once per change, in order per lead, while keep_going() is true.
    seen_event_ids: event_id values already handled (keep them in your database, e.g. a unique key)."""
    # No schema given: each message is checked against the schema it was written with (its id, in the frame).
    deserialize = JSONDeserializer(None, schema_registry_client=SchemaRegistryClient({"url": registry_url}))
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    try:
        while keep_going():
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                raise KafkaException(msg.error())
            assignment = deserialize(msg.value(), SerializationContext(msg.topic(), MessageField.VALUE))
            # At least once: a change may come again (same event_id, same content). Handle it once.
            if assignment["event_id"] not in seen_event_ids:
                handle(assignment)  # agent_id: the agent who now has the lead; None: it left (see reason)
                seen_event_ids.add(assignment["event_id"])
            consumer.commit(message=msg, asynchronous=False)  # only once handled
    finally:
        consumer.close()

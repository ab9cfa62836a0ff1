-- Version 3: room for REPLAYED_FROM_CONSOLE (a dead letter whose message was retried in the Artemis console).
alter table dead_letter alter column requeue_method set data type varchar(40);

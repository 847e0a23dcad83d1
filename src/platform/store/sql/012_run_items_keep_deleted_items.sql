-- A dataset run keeps every result it recorded (Langfuse's behaviour): deleting a dataset item no longer deletes the
-- run items that refer to it, so dataset_item_id is a plain reference from here on (the index on it stays).
ALTER TABLE dataset_run_items DROP CONSTRAINT dataset_run_items_project_id_dataset_item_id_fkey;

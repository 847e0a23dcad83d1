-- Who made a score in the dashboard (an annotation): the dashboard user's id, as Langfuse's authorUserId. Scores
-- written through the API or ingestion have none.
ALTER TABLE scores ADD COLUMN author_user_id text;

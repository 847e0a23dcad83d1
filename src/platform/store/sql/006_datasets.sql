-- Score configs and datasets of the public API (reference §7 ScoreConfig, §8): score_configs, datasets, their items,
-- runs and run items. Everything is project-scoped; children reference their parent by (project_id, id).

CREATE TABLE score_configs (
  project_id   text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id           text NOT NULL,
  name         text NOT NULL,
  data_type    text NOT NULL CHECK (data_type IN ('NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT')),
  is_archived  boolean NOT NULL DEFAULT false,
  -- NUMERIC only; null: unbounded on that side.
  min_value    double precision,
  max_value    double precision,
  -- CATEGORICAL and BOOLEAN: [{ "label", "value" }]; null otherwise.
  categories   jsonb,
  description  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX score_configs_project_created ON score_configs (project_id, created_at DESC, id);

CREATE TABLE datasets (
  project_id              text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id                      text NOT NULL,
  name                    text NOT NULL,
  description             text,
  metadata                jsonb,
  input_schema            jsonb,
  expected_output_schema  jsonb,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  -- Datasets are upserted and addressed by name.
  UNIQUE (project_id, name)
);
CREATE INDEX datasets_project_created ON datasets (project_id, created_at DESC, id);

CREATE TABLE dataset_items (
  project_id             text NOT NULL,
  -- Unique in the project, not only in the dataset: an id given for another dataset is refused.
  id                     text NOT NULL,
  dataset_id             text NOT NULL,
  status                 text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'ARCHIVED')),
  input                  jsonb,
  expected_output        jsonb,
  metadata               jsonb,
  source_trace_id        text,
  source_observation_id  text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, dataset_id) REFERENCES datasets (project_id, id) ON DELETE CASCADE
);
CREATE INDEX dataset_items_dataset_created ON dataset_items (project_id, dataset_id, created_at DESC, id);
CREATE INDEX dataset_items_project_created ON dataset_items (project_id, created_at DESC, id);
CREATE INDEX dataset_items_source_trace ON dataset_items (project_id, source_trace_id) WHERE source_trace_id IS NOT NULL;

CREATE TABLE dataset_runs (
  project_id   text NOT NULL,
  id           text NOT NULL,
  dataset_id   text NOT NULL,
  name         text NOT NULL,
  description  text,
  metadata     jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  -- Runs are created implicitly by name when a run item names them.
  UNIQUE (project_id, dataset_id, name),
  FOREIGN KEY (project_id, dataset_id) REFERENCES datasets (project_id, id) ON DELETE CASCADE
);
CREATE INDEX dataset_runs_dataset_created ON dataset_runs (project_id, dataset_id, created_at DESC, id);

CREATE TABLE dataset_run_items (
  project_id       text NOT NULL,
  id               text NOT NULL,
  dataset_run_id   text NOT NULL,
  dataset_item_id  text NOT NULL,
  -- Not foreign keys: traces may arrive after the run item (ingestion is asynchronous for the SDKs).
  trace_id         text NOT NULL,
  observation_id   text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, dataset_run_id) REFERENCES dataset_runs (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, dataset_item_id) REFERENCES dataset_items (project_id, id) ON DELETE CASCADE
);
CREATE INDEX dataset_run_items_run_created ON dataset_run_items (project_id, dataset_run_id, created_at DESC, id);
CREATE INDEX dataset_run_items_item ON dataset_run_items (project_id, dataset_item_id);

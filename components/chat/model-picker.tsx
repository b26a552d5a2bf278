'use client';
/**
 * Which model answers in this chat: a native `<select>` (keyboard and screen readers for free), grouped by provider.
 * It starts from the models the server knew when rendering the page and asks `/api/models` for the full list once
 * shown, since discovery (a local Ollama, compatible endpoints) may still have been running then.
 */
import { useEffect, useState } from 'react';
import { listModels } from '@/components/lib/api';
import type { ModelEntry, ModelMenu, ModelProvider } from '@/server/model/registry';
import { ADD_MODEL_HINTS, needsModelHint } from './model-hint';

const PROVIDER_NAMES: Record<ModelProvider, string> = {
  offline: 'Built-in',
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  compatible: 'OpenAI-compatible',
  ollama: 'Ollama',
};

function byProvider(models: ModelEntry[]): [ModelProvider, ModelEntry[]][] {
  const groups = new Map<ModelProvider, ModelEntry[]>();
  for (const m of models) groups.set(m.provider, [...(groups.get(m.provider) ?? []), m]);
  return [...groups];
}

export function ModelPicker({
  menu,
  value,
  onPick,
}: {
  menu: ModelMenu;
  /** The chat's model id. */
  value: string;
  onPick: (id: string) => void;
}) {
  const [models, setModels] = useState(menu.models);
  useEffect(() => {
    const controller = new AbortController();
    listModels(controller.signal)
      .then((full) => setModels(full.models))
      .catch(() => {});
    return () => controller.abort();
  }, []);
  const current = models.find((m) => m.id === value);
  return (
    <label
      className={`model-badge model-badge--${current?.provider ?? 'missing'}`}
      data-testid="model-badge"
      data-kind={current?.provider}
      title="The model that answers in this chat"
    >
      <span className="model-badge__dot" aria-hidden="true" />
      <span className="visually-hidden">Model</span>
      <select
        className="model-picker"
        data-testid="model-picker"
        value={value}
        onChange={(event) => onPick(event.target.value)}
      >
        {current ? null : <option value={value}>{value} (not available now)</option>}
        {byProvider(models).map(([provider, entries]) => (
          <optgroup key={provider} label={PROVIDER_NAMES[provider]}>
            {entries.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label}
              </option>
            ))}
          </optgroup>
        ))}
        {needsModelHint(models) ? (
          // Disabled options: seen exactly when someone opens the picker looking for another model, and no header space.
          <optgroup label="Add a model" data-testid="model-hint">
            {ADD_MODEL_HINTS.map((line) => (
              <option key={line} value={`hint:${line}`} disabled>
                {line}
              </option>
            ))}
          </optgroup>
        ) : null}
      </select>
    </label>
  );
}

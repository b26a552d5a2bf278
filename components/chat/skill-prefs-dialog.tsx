'use client';
/**
 * "Manage skills…" from the slash menu: one switch per skill, to switch a skill off (or back on) for oneself only.
 * A modal <dialog>: Esc closes it, and the composer gets focus back (the caller's `onClose`).
 */
import { useEffect, useRef, useState } from 'react';
import { listSkillPrefs, type SkillPref, setSkillPref } from '@/components/lib/api';

interface SkillPrefsDialogProps {
  onClose: () => void;
}

export function SkillPrefsDialog({ onClose }: SkillPrefsDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [skills, setSkills] = useState<SkillPref[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState<string | null>(null);

  useEffect(() => {
    dialogRef.current?.showModal();
    const controller = new AbortController();
    listSkillPrefs(controller.signal)
      .then(setSkills)
      .catch((e: unknown) => {
        if (!controller.signal.aborted) setError(e instanceof Error ? e.message : 'Could not load skills');
      });
    return () => controller.abort();
  }, []);

  async function toggle(skill: SkillPref) {
    setSaving(skill.name);
    setError(null);
    try {
      const saved = await setSkillPref(skill.name, !skill.disabled);
      setSkills((list) => list?.map((s) => (s.name === saved.name ? saved : s)) ?? null);
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Could not save');
    } finally {
      setSaving(null);
    }
  }

  return (
    <dialog
      ref={dialogRef}
      className="skill-prefs"
      aria-labelledby="skill-prefs-title"
      aria-describedby="skill-prefs-help"
      data-testid="skill-prefs"
      onClose={onClose}
    >
      <h2 id="skill-prefs-title" className="skill-prefs__title">
        Your skills
      </h2>
      <p id="skill-prefs-help" className="skill-prefs__help">
        Switch a skill off to keep it out of your slash menu and away from the model in your chats. Only you are
        affected.
      </p>
      {skills === null && !error ? <p className="skill-prefs__status">Loading…</p> : null}
      {skills?.length === 0 ? <p className="skill-prefs__status">No skills to switch.</p> : null}
      {skills && skills.length > 0 ? (
        <ul className="skill-prefs__list">
          {skills.map((skill) => (
            <li key={skill.name} className="skill-prefs__item">
              <span className="skill-prefs__text">
                <span className="skill-prefs__name" id={`skill-pref-label-${skill.name}`}>
                  /{skill.name}
                </span>
                <span className="skill-prefs__description">{skill.description}</span>
              </span>
              <button
                type="button"
                role="switch"
                aria-checked={!skill.disabled}
                aria-labelledby={`skill-pref-label-${skill.name}`}
                className="skill-prefs__switch"
                data-testid={`skill-pref-${skill.name}`}
                disabled={saving === skill.name}
                onClick={() => void toggle(skill)}
              >
                <span className="skill-prefs__state">{skill.disabled ? 'Off' : 'On'}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? (
        <p className="skill-prefs__error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="skill-prefs__actions">
        <button
          type="button"
          className="button button--ghost button--small"
          data-testid="skill-prefs-close"
          onClick={() => dialogRef.current?.close()}
        >
          Done
        </button>
      </div>
    </dialog>
  );
}

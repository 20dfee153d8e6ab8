// Job schedules (parse-server's `_JobSchedule`, through `/cloud_code/jobs`): a job with its parameters, a start, and
// a repeat (every N minutes, or daily at a UTC time on chosen days); added, edited and deleted. The server starts
// each due run; runs show in the jobs' table with the source `schedule`.
import { api } from './api.js';
import { attempt, clear, h, say } from './dom.js';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function scheduleEditor(jobNames, readOnly, onChange) {
  const job = h('select', { id: 'schedule-job' }, jobNames.map((name) => h('option', { value: name }, name)));
  const description = h('input', { id: 'schedule-description', placeholder: 'Description' });
  const params = h('input', { id: 'schedule-params', placeholder: '{"key":"value"}', size: 30 });
  const start = h('input', { id: 'schedule-start', type: 'datetime-local' });
  const repeat = h('select', { id: 'schedule-repeat' }, h('option', { value: 'once' }, 'Once'),
    h('option', { value: 'interval' }, 'Every N minutes'), h('option', { value: 'daily' }, 'Daily at (UTC)'));
  const minutes = h('input', { id: 'schedule-minutes', type: 'number', min: 1, placeholder: 'minutes', size: 6 });
  const time = h('input', { id: 'schedule-time', type: 'time' });
  const days = DAYS.map((name, index) => h('label', { class: 'day' }, h('input', { type: 'checkbox', value: index, class: 'schedule-day' }), name));
  const dayBox = h('span', { id: 'schedule-days', class: 'inline' }, days);
  const save = h('button', { id: 'schedule-save', type: 'submit' }, 'Schedule');
  const cancel = h('button', { id: 'schedule-cancel', type: 'button', hidden: true }, 'Cancel edit');
  const form = h('form', { id: 'schedule-form', class: 'toolbar', hidden: readOnly }, job, description, params,
    h('label', {}, 'Start ', start), repeat, minutes, time, dayBox, save, cancel);
  const table = h('table', { id: 'schedules', class: 'rows' });
  let editing = null;

  const show = () => {
    minutes.hidden = repeat.value !== 'interval';
    time.hidden = dayBox.hidden = repeat.value !== 'daily';
  };
  repeat.addEventListener('change', show);
  show();

  function reset() {
    editing = null;
    form.reset();
    save.textContent = 'Schedule';
    cancel.hidden = true;
    show();
  }
  cancel.addEventListener('click', reset);

  // The form as a `job_schedule`; throws a message a person can act on.
  function body() {
    if (!job.value) throw new Error('No job is registered to schedule.');
    const schedule = { jobName: job.value, description: description.value.trim() || undefined };
    if (params.value.trim()) {
      let value;
      try { value = JSON.parse(params.value); } catch { throw new Error('The parameters must be JSON.'); }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('The parameters must be a JSON object.');
      schedule.params = JSON.stringify(value);
    }
    if (start.value) {
      const date = new Date(start.value);
      if (Number.isNaN(date.getTime())) throw new Error('The start is not a date.');
      schedule.startAfter = date.toISOString();
    }
    if (repeat.value === 'interval') {
      const value = Number(minutes.value);
      if (!Number.isInteger(value) || value < 1) throw new Error('Repeat every whole number of minutes, 1 or more.');
      schedule.repeatMinutes = value;
    } else if (repeat.value === 'daily') {
      if (!time.value) throw new Error('Choose the time of day.');
      schedule.timeOfDay = `${time.value}:00.000Z`;
      const chosen = days.map((label) => label.firstChild).filter((box) => box.checked).map((box) => Number(box.value));
      if (chosen.length) schedule.daysOfWeek = chosen;
    }
    return schedule;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let schedule;
    try { schedule = body(); } catch (error) { say(error.message, true); return; }
    const call = editing
      ? () => api('PUT', `cloud_code/jobs/${encodeURIComponent(editing)}`, { job_schedule: schedule })
      : () => api('POST', 'cloud_code/jobs', { job_schedule: schedule });
    if (await attempt(call, editing ? 'Schedule saved.' : `${schedule.jobName} scheduled.`)) {
      reset();
      await load();
      onChange();
    }
  });

  function edit(row) {
    editing = row.objectId;
    job.value = row.jobName;
    description.value = row.description || '';
    params.value = row.params || '';
    const local = new Date(new Date(row.startAfter).getTime() - new Date().getTimezoneOffset() * 60000);
    start.value = local.toISOString().slice(0, 16);
    repeat.value = row.repeatMinutes ? 'interval' : row.timeOfDay ? 'daily' : 'once';
    minutes.value = row.repeatMinutes || '';
    time.value = row.timeOfDay ? row.timeOfDay.slice(0, 5) : '';
    for (const label of days) label.firstChild.checked = (row.daysOfWeek || []).includes(Number(label.firstChild.value));
    save.textContent = 'Save schedule';
    cancel.hidden = false;
    show();
  }

  async function load() {
    const rows = await api('GET', 'cloud_code/jobs');
    clear(table).append(
      h('thead', {}, h('tr', {}, ['job', 'description', 'parameters', 'starts', 'repeats', 'last run', ''].map((name) => h('th', {}, name)))),
      h('tbody', {}, rows.length ? rows.map((row) => h('tr', { dataset: { schedule: row.objectId, job: row.jobName } },
        h('td', {}, row.jobName), h('td', {}, row.description || ''), h('td', {}, row.params || ''),
        h('td', {}, row.startAfter), h('td', { class: 'schedule-repeats' }, repeatText(row)),
        h('td', { class: 'schedule-last-run' }, row.lastRun ? new Date(row.lastRun).toISOString() : 'not yet'),
        h('td', {}, readOnly ? '' : [
          h('button', { type: 'button', class: 'schedule-edit', onclick: () => edit(row) }, 'Edit'),
          h('button', { type: 'button', class: 'schedule-delete', onclick: async () => {
            if (!confirm(`Delete the schedule of ${row.jobName}?`)) return;
            if (await attempt(() => api('DELETE', `cloud_code/jobs/${encodeURIComponent(row.objectId)}`), 'Schedule deleted.')) await load();
          } }, 'Delete'),
        ]))) : h('tr', {}, h('td', { class: 'empty', colspan: '7' }, 'No schedules.'))));
    return rows;
  }

  return { form, table, load };
}

function repeatText(row) {
  const days = row.daysOfWeek && row.daysOfWeek.length ? ' on ' + row.daysOfWeek.map((day) => DAYS[day]).join(', ') : '';
  if (row.repeatMinutes) return `every ${row.repeatMinutes} min` + (row.timeOfDay ? ` from ${row.timeOfDay}` : '');
  if (row.timeOfDay) return `daily at ${row.timeOfDay}${days}`;
  return 'once';
}

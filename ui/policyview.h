// SPDX-License-Identifier: MIT
// A container policy as a reviewer reads it: every line in words (the same lines `cordon inspect` prints,
// engine/core/policywords.h), what each allowlist rule reaches, risky settings marked, and the policy text
// itself, pretty-printed. Used by the Inspect view and by a run's detail, so a run shows what it ran under.
#pragma once

#include <QJsonObject>
#include <QWidget>

class QPlainTextEdit;
class QTreeWidget;

namespace Cordon::Ui {

class PolicyView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PolicyView)

public:
    explicit PolicyView(QWidget *parent = nullptr);

    // The canonical policy JSON (container.get's `policy`, run.get's `policy`); empty shows that none is
    // known.
    void setPolicy(const QJsonObject &policy, const QString &version);

    // The lines as shown, "Label: text", one per row (caveats indented under their rule); for tests and copy.
    QString wordsText() const;
    QString jsonText() const;
    // Rows marked as needing a second look (private addresses, writable mounts, ptrace).
    int warningCount() const;

private:
    QTreeWidget *m_words;
    QPlainTextEdit *m_json;
    int m_warnings = 0;
};

} // namespace Cordon::Ui
